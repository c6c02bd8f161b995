(function(){
// A folder's page under arena serve: its section follows the folder (server-sent events), and the games
// list is asked of the server a page at a time, sorted and filtered there.
var live=document.getElementById('live'),table=document.getElementById('games');
var filter=document.getElementById('games-filter'),pageText=document.getElementById('games-page');
var prev=document.getElementById('games-prev'),next=document.getElementById('games-next');
var page=0,pages=1,sortBy=null,down=false,asked=0,columns=null,timer=null;
function ask(){
  var n=++asked,q='games?page='+page+(sortBy?'&sort='+encodeURIComponent(sortBy)+(down?'&desc=1':''):'')+
    (filter.value.trim()?'&q='+encodeURIComponent(filter.value.trim()):'');
  fetch(q,{credentials:'same-origin'}).then(function(r){return r.json();}).then(function(D){
    if(n!==asked){return;}
    if(!columns){columns=D.columns;heading();}
    pages=D.pages;page=D.page;
    var body=table.tBodies[0];body.textContent='';
    D.rows.forEach(function(r){
      var tr=document.createElement('tr');
      r.forEach(function(v,k){
        var td=document.createElement('td');if(typeof v==='number'){td.className='num';}
        if(k===0){var a=document.createElement('a');a.href='game/'+encodeURIComponent(v);a.textContent=v;td.appendChild(a);}
        else{td.textContent=v;}
        tr.appendChild(td);});
      body.appendChild(tr);});
    pageText.textContent='page '+(page+1)+' of '+pages+' ('+D.matched+' games'+(filter.value.trim()?' match':'')+')';
    prev.disabled=page===0;next.disabled=page>=pages-1;
    document.body.setAttribute('data-games-page',page+1);}).catch(function(){});}
function heading(){
  var head=document.createElement('tr');
  columns.forEach(function(name){
    var th=document.createElement('th');th.textContent=name;th.title='sort by '+name;
    th.addEventListener('click',function(){down=sortBy===name?!down:false;sortBy=name;page=0;sorted();ask();});
    head.appendChild(th);});
  table.tHead.appendChild(head);}
function sorted(){Array.prototype.forEach.call(table.tHead.rows[0].children,function(th){
  th.setAttribute('aria-sort',th.textContent===sortBy?(down?'descending':'ascending'):'none');});}
prev.onclick=function(){page--;ask();};
next.onclick=function(){page++;ask();};
filter.addEventListener('input',function(){clearTimeout(timer);timer=setTimeout(function(){page=0;ask();},250);});
ask();
var updates=0;
if(window.EventSource){
  var events=new EventSource('events');
  events.addEventListener('section',function(e){
    live.innerHTML=JSON.parse(e.data).html;updates++;document.body.setAttribute('data-updates',updates);
    if(!sortBy&&!filter.value.trim()){ask();}});
  events.addEventListener('error',function(){document.body.setAttribute('data-events','lost');});}
})();
